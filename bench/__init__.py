"""Benchmarks of deepresearch-bot: ``python -m bench`` prints the figures and writes bench/results.json."""
