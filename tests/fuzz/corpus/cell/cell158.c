float f = 0.1f;
