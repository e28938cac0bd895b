"""The Slack surface: Bolt app, HTTP and Socket Mode server, chat port, Markdown to mrkdwn."""
