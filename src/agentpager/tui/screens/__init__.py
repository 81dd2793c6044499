"""Every screen pushed over the workspace's own: full ones (transcript, sessions, probe: the real
agent's answer) and modal ones (help, the prompts, key_prompt, find_file)."""
