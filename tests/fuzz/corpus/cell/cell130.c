recurse(0);
