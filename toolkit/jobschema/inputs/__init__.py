"""Reading inputs: files, folders, globs and stdin; NDJSON lines and HAR entries; parsing JSON bytes
into values (duplicate keys, big numbers); mapping pointers back to lines. The bottom layer."""
