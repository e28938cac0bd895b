"""Tests of the job layer: store, conversation rules, queue, workers, in-process runner."""
