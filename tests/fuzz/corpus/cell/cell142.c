const char *js = "{\"k\": [1, 2]}";
printf("%s\n", js); /* ends with a comment */
