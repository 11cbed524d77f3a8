hidden = 4;
twice(hidden)
