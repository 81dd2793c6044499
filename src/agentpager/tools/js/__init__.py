"""What JavaScript and its npm packages do, ported for the profiles of agents written for Node
(Claude Code, Gemini CLI): their strings, collation, gitignore rules and diff hunks shape the texts
those agents give their models."""
