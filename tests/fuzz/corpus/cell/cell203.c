%%cc
int broken(void)
{
    return undefined_thing;
}
