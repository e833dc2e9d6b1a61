//go:build amd64 || arm64 || riscv64

package helper

// System calls numbered alike on every 64-bit architecture (added after
// the tables were unified, Linux 5.1+).
const (
	sysIoUringSetup     = 425
	sysIoUringEnter     = 426
	sysIoUringRegister  = 427
	sysOpenTree         = 428
	sysMoveMount        = 429
	sysFsopen           = 430
	sysFsconfig         = 431
	sysFsmount          = 432
	sysFspick           = 433
	sysClone3           = 435
	sysMountSetattr     = 442
	sysLandlockCreate   = 444
	sysLandlockAddRule  = 445
	sysLandlockRestrict = 446
	sysOpenTreeAttr     = 467
)

// Flags and values of the kernel's ABI that syscall does not define.
const (
	openTreeClone       = 0x1
	oPath               = 0x200000
	atRecursive         = 0x8000
	atEmptyPath         = 0x1000
	atSymlinkNofollow   = 0x100
	moveMountFEmptyPath = 0x4

	mountAttrRdonly = 0x1
	mountAttrNosuid = 0x2
	mountAttrNodev  = 0x4

	prSetNoNewPrivs      = 38
	prCapbsetDrop        = 24
	prSetSecurebits      = 28
	prCapAmbient         = 47
	prCapAmbientClearAll = 4

	seccompSetModeFilter = 1

	cloneNewUser = 0x10000000
	tiocsti      = 0x5412
	tioclinux    = 0x541c

	afUnix       = 1
	afInet       = 2
	afInet6      = 10
	afNetlink    = 16
	netlinkRoute = 0
)
