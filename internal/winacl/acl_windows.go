package winacl

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// CurrentUserSIDs returns the SIDs that own what this process creates:
// the user's own and the token's default owner (Administrators, for an
// elevated process).
func CurrentUserSIDs() []*windows.SID {
	token := windows.GetCurrentProcessToken()
	var sids []*windows.SID
	if u, err := token.GetTokenUser(); err == nil {
		sids = append(sids, u.User.Sid)
	}
	if o, err := tokenOwner(token); err == nil {
		sids = append(sids, o)
	}
	return sids
}

// tokenOwner returns the default owner of objects token creates.
func tokenOwner(token windows.Token) (*windows.SID, error) {
	n := uint32(64)
	for {
		buf := make([]byte, n)
		err := windows.GetTokenInformation(token, windows.TokenOwner, &buf[0], n, &n)
		if errors.Is(err, windows.ERROR_INSUFFICIENT_BUFFER) && n > uint32(len(buf)) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read token owner: %w", err)
		}
		// TOKEN_OWNER is one pointer to a SID inside buf.
		owner := (*struct{ Owner *windows.SID })(unsafe.Pointer(&buf[0])).Owner
		return owner.Copy()
	}
}

// MakePrivate gives dir a protected ACL granting the current user alone
// full control, inherited by every file and directory created in it.
func MakePrivate(dir string) error {
	acl, err := privateACL(windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT)
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

// OthersAllowed returns a SID, other than the current user's, SYSTEM and
// the Administrators group (who can take any file anyway), that dir's ACL
// lets in, or "" when there is none. A missing ACL lets everyone in.
func OthersAllowed(dir string) (string, error) {
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return "", fmt.Errorf("read the ACL of %s: %w", dir, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return "Everyone (the directory has no ACL)", nil //nolint:nilerr // no DACL: open to all
	}
	trusted := CurrentUserSIDs()
	for _, known := range []windows.WELL_KNOWN_SID_TYPE{windows.WinLocalSystemSid, windows.WinBuiltinAdministratorsSid} {
		if sid, err := windows.CreateWellKnownSid(known); err == nil {
			trusted = append(trusted, sid)
		}
	}
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return "", fmt.Errorf("read the ACL of %s: %w", dir, err)
		}
		// Only allow entries that apply to the directory itself count;
		// inherit-only ones (CREATOR OWNER's) do not.
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if !containsSID(trusted, sid) {
			return sid.String(), nil
		}
	}
	return "", nil
}

func containsSID(sids []*windows.SID, sid *windows.SID) bool {
	for _, s := range sids {
		if s.Equals(sid) {
			return true
		}
	}
	return false
}

// privateACL is an ACL granting the current user's SIDs alone full
// control, with the given inheritance.
func privateACL(inheritance uint32) (*windows.ACL, error) {
	sids := CurrentUserSIDs()
	if len(sids) == 0 {
		return nil, errors.New("cannot identify the current user")
	}
	entries := make([]windows.EXPLICIT_ACCESS, 0, len(sids))
	for _, sid := range sids {
		entries = append(entries, windows.EXPLICIT_ACCESS{
			AccessPermissions: windows.GENERIC_ALL,
			AccessMode:        windows.GRANT_ACCESS,
			Inheritance:       inheritance,
			Trustee: windows.TRUSTEE{
				TrusteeForm:  windows.TRUSTEE_IS_SID,
				TrusteeType:  windows.TRUSTEE_IS_USER,
				TrusteeValue: windows.TrusteeValueFromSID(sid),
			},
		})
	}
	return windows.ACLFromEntries(entries, nil)
}

// CreatePrivateFile creates path, which must not exist (nor be a symlink
// or junction: CREATE_NEW fails on any existing name), for writing, with
// a protected ACL granting the current user alone access from the moment
// it exists: a file made private after its creation could be opened by
// someone else in between.
func CreatePrivateFile(path string) (*os.File, error) {
	acl, err := privateACL(windows.NO_INHERITANCE)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	sd, err := windows.NewSecurityDescriptor()
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if err := sd.SetDACL(acl, true, false); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if err := sd.SetControl(windows.SE_DACL_PROTECTED, windows.SE_DACL_PROTECTED); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	sa := windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(sa))
	h, err := windows.CreateFile(p, windows.GENERIC_WRITE, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE,
		&sa, windows.CREATE_NEW, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
