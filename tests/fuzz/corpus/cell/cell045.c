const char *x = "now a string";
