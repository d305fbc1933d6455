// Package fileowner gives files that root writes into a data directory
// the directory's owner (LikeDir), so that the user the appliance serves
// as can read them: linkplan restore and linkplan promote (appliance/backup,
// appliance/standby) run with sudo. It imports no project package.
package fileowner
