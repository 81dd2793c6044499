"""Reading an agent's log: its records (JSON, JSON Lines, a long line skimmed at its ends), and the
``Collector`` each log format reads them into calls, conversation and model turns with.

The logs of model messages (OpenAI's and Anthropic's) are read here (``messages``); each agent's own
format is in its package (``agentpager.agents``), and ``agentpager.transcripts`` finds which one a
file is in.
"""
