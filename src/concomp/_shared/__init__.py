"""Host helpers both engines use (engine-neutral: no engine imports this package's users)."""
