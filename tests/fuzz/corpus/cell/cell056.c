int counter = 100;
