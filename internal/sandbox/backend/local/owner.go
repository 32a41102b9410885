package local

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
)

// lookupUid turns a user name into a uid. A name that no passwd entry has
// but that is a decimal number is taken as a numeric uid.
func lookupUid(name string) (int, error) {
	return lookupID("user", name, func(n string) (string, error) {
		u, err := user.Lookup(n)
		if err != nil {
			return "", err
		}
		return u.Uid, nil
	})
}

// primaryGid is the primary group of owner's account (a name, or a decimal
// uid some account has), which `chown owner:` gives; ok is false for a uid
// no account has, whose group is then left alone. "root" is 0 even without
// a user database. A provider not running as root changes a group only to
// its own (it could not give any other), so its files keep theirs.
func primaryGid(owner string) (gid int, ok bool) {
	u, err := user.Lookup(owner)
	if err != nil {
		if _, nerr := strconv.ParseUint(owner, 10, 31); nerr == nil {
			u, err = user.LookupId(owner)
		}
	}
	switch {
	case err == nil:
		if gid, err = strconv.Atoi(u.Gid); err != nil {
			return -1, false
		}
	case owner == rootName || owner == "0":
		gid = 0
	default:
		return -1, false
	}
	if geteuid() != 0 && gid != os.Getegid() {
		return -1, false
	}
	return gid, true
}

// userName returns the name of uid, or its decimal form when unknown
// ("root" for 0).
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	if uid == 0 {
		return rootName
	}
	return strconv.Itoa(uid)
}

// CheckOwner refuses an owner other than the user this process runs as,
// unless it runs as root: only root can give a file away. A user unknown
// here is refused too. It only reads the user database.
func CheckOwner(owner string) error {
	euid := geteuid()
	if euid == 0 {
		return nil
	}
	uid, err := lookupUid(owner)
	if err != nil {
		return err
	}
	if uid != euid {
		return fmt.Errorf("a local workspace can only be owned by the user the provider runs as, %s (uid %d): "+
			"giving files to %s (uid %d) needs the provider to run as root", userName(euid), euid, owner, uid)
	}
	return nil
}

// RunsAsRoot reports whether this process can give files to any user. A
// provider that cannot writes every file as its own user already, so an
// entry with no owner is not chowned (see workspace.DefaultEntryOwner).
func RunsAsRoot() bool { return geteuid() == 0 }

// KnownUser reports whether name is a user of this machine (or a decimal
// uid, or root). It only reads the user database.
func KnownUser(name string) bool {
	_, err := lookupUid(name)
	return err == nil
}

// OwnUser is the name of the user this process runs as (its decimal uid
// when it has no name).
func OwnUser() string { return userName(geteuid()) }

// geteuid is the effective uid the owner checks act as.
var geteuid = os.Geteuid

// ActAsUIDForTests makes the owner checks act as if the process ran as uid
// (a provider not running as root, in a test run as root) until restore is
// called. Tests only; not safe while other goroutines check owners.
func ActAsUIDForTests(uid int) (restore func()) {
	prev := geteuid
	geteuid = func() int { return uid }
	return func() { geteuid = prev }
}
