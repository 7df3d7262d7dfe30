package spill

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// noFollow is 0 on Windows: O_CREATE|O_EXCL is CREATE_NEW there, which
// fails on any existing name, a symlink or junction included.
const noFollow = 0

// makePrivate gives dir a protected ACL granting the current user alone
// full control, inherited by every file created in it: Windows ignores
// the 0700 and 0600 modes, and a --spill-dir outside the per-user temp
// directory would otherwise pass on its parent's ACL.
func makePrivate(dir string) error {
	sids := currentUserSIDs()
	if len(sids) == 0 {
		return fmt.Errorf("make %s private: cannot identify the current user", dir)
	}
	entries := make([]windows.EXPLICIT_ACCESS, 0, len(sids))
	for _, sid := range sids {
		entries = append(entries, windows.EXPLICIT_ACCESS{
			AccessPermissions: windows.GENERIC_ALL,
			AccessMode:        windows.GRANT_ACCESS,
			Inheritance:       windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT,
			Trustee: windows.TRUSTEE{
				TrusteeForm:  windows.TRUSTEE_IS_SID,
				TrusteeType:  windows.TRUSTEE_IS_USER,
				TrusteeValue: windows.TrusteeValueFromSID(sid),
			},
		})
	}
	acl, err := windows.ACLFromEntries(entries, nil)
	if err != nil {
		return fmt.Errorf("make %s private: %w", dir, err)
	}
	// PROTECTED: nothing is inherited from the parent.
	info := windows.SECURITY_INFORMATION(windows.DACL_SECURITY_INFORMATION | windows.PROTECTED_DACL_SECURITY_INFORMATION)
	if err := windows.SetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, info, nil, nil, acl, nil); err != nil {
		return fmt.Errorf("make %s private: %w", dir, err)
	}
	return nil
}
