"""Chat surfaces: Slack, Microsoft Teams and the terminal."""
