/* true: exit 0. Built static for aarch64; tests/qemu/run execs it. */
int
main(void)
{
	return 0;
}
