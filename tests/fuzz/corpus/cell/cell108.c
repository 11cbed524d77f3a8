int tail = (1 +
