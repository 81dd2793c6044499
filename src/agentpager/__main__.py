from agentpager.cli import run

run()
