package checkpoint

import "syscall"

// remoteFS names the file systems (by statfs(2) magic number) whose
// changes may come from elsewhere without an inotify event: network file
// systems and FUSE (a remote edit; a Windows-side edit under WSL's 9p).
func remoteFS(magic int64) string {
	switch magic {
	case 0x6969:
		return "NFS"
	case 0x517b:
		return "SMB"
	case 0xff534d42:
		return "CIFS"
	case 0xfe534d42:
		return "SMB2"
	case 0x65735546:
		return "FUSE"
	case 0x01021997:
		return "9p"
	case 0x00c36400:
		return "Ceph"
	case 0x47504653:
		return "GPFS"
	case 0x0bd00bd0:
		return "Lustre"
	}
	return ""
}

// unwatchable says why root's file events cannot be trusted ("" if they
// can).
func unwatchable(root string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(root, &st); err != nil {
		return ""
	}
	if name := remoteFS(int64(st.Type)); name != "" {
		return "the tree is on " + name + ", whose remote changes raise no file event"
	}
	return ""
}
