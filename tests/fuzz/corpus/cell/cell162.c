fprintf(stderr, "to stderr\n");
printf("to stdout\n");
fprintf(stderr, "again stderr\n");
