"""The embedded runner: the stack `engram up` starts from docker-compose.yml
(Postgres, NATS and the six services as processes), its supervisor, and the
migrations job. It never imports the CLI; the CLI and the test and benchmark
harnesses drive it."""
