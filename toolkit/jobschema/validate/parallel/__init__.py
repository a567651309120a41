"""Checking on several processes or machines: forked children (Linux), a process pool (elsewhere),
Dask (:mod:`.dask`), and the tickets that cut the work into batches (:mod:`.tickets`)."""
