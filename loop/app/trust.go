package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"talaria/loop/config"
	"talaria/loop/ext"
)

// maxUserConfigBytes bounds the config.yaml TrustProject rewrites.
const maxUserConfigBytes = 4 << 20

// TrustProject records dir's project (its git root, or dir) in the
// trusted_projects of the user's config.yaml at path, so its own settings
// apply from then on (the TUI's trust dialog calls it once the user
// accepts). The file is rewritten atomically, every other key, comment
// and order kept; a folder already listed is not added twice. A missing
// file is created. It returns the folder recorded.
func TrustProject(path, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root := ext.ProjectRoot(abs)
	data, err := os.ReadFile(path)
	switch {
	case os.IsNotExist(err):
		data = nil
	case err != nil:
		return "", err
	case len(data) > maxUserConfigBytes:
		return "", fmt.Errorf("%s: larger than %d bytes; not rewritten", path, maxUserConfigBytes)
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return "", fmt.Errorf("%s: %v (fix it, then trust the folder again)", path, err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return "", fmt.Errorf("%s: the top level is not a mapping; not rewritten", path)
	}
	top := doc.Content[0]
	var list *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "trusted_projects" {
			list = top.Content[i+1]
		}
	}
	if list == nil {
		list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		top.Content = append(top.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "trusted_projects"}, list)
	}
	switch list.Kind {
	case yaml.SequenceNode:
	case yaml.ScalarNode:
		if list.Tag != "!!null" && list.Value != "" {
			return "", fmt.Errorf("%s: trusted_projects is not a list; not rewritten", path)
		}
		*list = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	default:
		return "", fmt.Errorf("%s: trusted_projects is not a list; not rewritten", path)
	}
	var have []string
	for _, n := range list.Content {
		have = append(have, n.Value)
	}
	if ext.Trusted(root, have) {
		return root, nil
	}
	list.Style = 0 // block style, one folder a line
	list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: root})
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return root, config.WriteFileAtomic(path, buf.Bytes(), 0o600, 0o700)
}
