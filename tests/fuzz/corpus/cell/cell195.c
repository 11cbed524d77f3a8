%%time
int answer = 6 * 7;
answer
