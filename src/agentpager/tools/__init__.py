"""The file tools: what every profile is made of (specs and arguments, paths and confinement, the
output guard, listings, the shell emulator) and the contract's four profiles.

A profile is one agent's tool set. The contract's (``docs/TOOLS.md``) have no agent behind them and
live here, one module each; the profiles of real agents live in their agent's package
(``agentpager.agents``). ``agentpager.profiles`` lists them all.
"""

CONTRACT_PROFILES = {
    "qq": "agentpager.tools.qq",
    "forge": "agentpager.tools.forge",
    "crush": "agentpager.tools.crush",
    "vault": "agentpager.tools.vault",
}
"""Each contract profile's module, which exports ``PROFILES``; qq is the default."""
