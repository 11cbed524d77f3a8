/*
 * K&R style: comments on their own lines
 */
int
add(int a, int b)   /* add two ints; return the sum */
{
    /* { not a block */
    return a + b;   // ; not the end
}
/* between */ int lone = add(2, 3); /* after */
