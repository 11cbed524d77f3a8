count = 7;
