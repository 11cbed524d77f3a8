twice(hidden)
