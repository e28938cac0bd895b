"""A minimal third chat surface (JSON webhooks in, a JSON-lines outbox out), built from the conversation core alone."""
