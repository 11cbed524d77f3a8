seen
