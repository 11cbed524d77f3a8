%reset
