"""Modal screens: the help, and the prompts for a line number and a search."""
