"""Coordination service: the agent board (presence, leases, mail)."""
