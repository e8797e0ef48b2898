"""`engram audit`: verify and show the hash-chained audit logs, and the key id
exports are signed with."""
