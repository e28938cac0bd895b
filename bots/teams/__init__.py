"""The Microsoft Teams surface: Bot Framework web endpoint, chat port, cards and report downloads."""
