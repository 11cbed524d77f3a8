printf("no newline");
