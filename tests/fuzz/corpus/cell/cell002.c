count + 1
