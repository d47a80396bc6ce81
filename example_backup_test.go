package fdyno_test

import (
	"errors"
	"fmt"

	"github.com/fdyno/fdyno"
)

// A backup holds the table as it was at one version; writes after it are
// not in the table restored from it.
func ExampleTable_CreateBackup() {
	db, root := exampleDB("Backup")
	music, err := fdyno.Open(db, "Music", root, fdyno.WithSchema(musicSchema))
	if err != nil {
		panic(err)
	}
	song := fdyno.Item{"Artist": fdyno.S("Nina Simone"), "SongTitle": fdyno.S("Feeling Good")}
	if _, err := music.Put(db, fdyno.PutInput{Item: song}); err != nil {
		panic(err)
	}
	backup, err := music.CreateBackup(db, "before-cleanup")
	if err != nil {
		panic(err)
	}
	// A bad deploy deletes the song.
	if _, err := music.Delete(db, fdyno.DeleteInput{Key: song}); err != nil {
		panic(err)
	}
	restored, err := fdyno.RestoreTableFromBackup(db, fdyno.RestoreTableFromBackupInput{BackupID: backup.BackupID, TargetTableName: "MusicRestored"}, root)
	if err != nil {
		panic(err)
	}
	got, err := restored.Get(db, fdyno.GetInput{Key: song})
	if err != nil {
		panic(err)
	}
	fmt.Println(backup.BackupStatus, backup.ItemCount, got.Item)

	_, err = fdyno.RestoreTableFromBackup(db, fdyno.RestoreTableFromBackupInput{BackupID: backup.BackupID, TargetTableName: "MusicRestored"}, root)
	fmt.Println(errors.Is(err, fdyno.ErrTableAlreadyExists))
	// Output:
	// AVAILABLE 1 {"Artist":{"S":"Nina Simone"},"SongTitle":{"S":"Feeling Good"}}
	// true
}
