"""The secret policy: what counts as a credential in a capture, and how it is masked."""
