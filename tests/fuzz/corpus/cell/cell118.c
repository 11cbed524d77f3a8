const char *nothing = NULL;
size_t length_of(const char *s) { return strlen(s); }
