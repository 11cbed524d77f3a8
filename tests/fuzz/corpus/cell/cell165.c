for (int i = 0; i < 3; i++) printf("%d\n", i);
