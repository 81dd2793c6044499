"""Every agent session on this machine in one index, searchable: a SQLite database in the cache dir.

- ``listing``: the sessions and their summaries, each file summed up again only when it changed
  (by device, inode, size and mtime); the first listing of many sessions is shared between
  processes (``pool``).
- ``updating`` and ``calls``: every call of every session (tool, arguments, status, recorded size and
  tokens, the file and lines it read), read in the background; a log that grew is read from where
  the last read ended.
- ``search``: text in prompts, arguments and outputs, the calls that read a file or a line of it;
  looked for in each batch of sessions as soon as its calls are read.
- ``store``: the database itself (WAL, one writer at a time, made again when damaged).
"""
