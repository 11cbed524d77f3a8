extern char **environ;
environ != NULL && environ[0] != NULL
