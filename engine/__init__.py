"""The research engine: a LangGraph pipeline that turns a question into a cited, reviewed report."""
