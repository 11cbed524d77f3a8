counter
