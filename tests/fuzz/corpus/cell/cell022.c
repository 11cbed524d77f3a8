(char)toupper('q')
