counter * 2
