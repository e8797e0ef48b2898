"""`engram backup` and `engram restore`: the archive, its sealed keys file, the
scratch-restore check, and the schedule behind `engram up --backup-every`."""
