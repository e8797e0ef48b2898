"""The one request path every door calls: admit (principal, grant, role,
rate limit), strict arguments, execute (deadline and call), typed failures,
audit (one access record a call)."""
