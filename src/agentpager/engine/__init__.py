"""The engine: file classification, the sparse line index, decoding, documents and tokens.

Pure Python and numpy; nothing here imports Textual, and markitdown only when a document is read.
"""
