// Package kube builds the Kubernetes manifests of a multi-client run
// (`sbgo kube`): an Indexed Job whose pods run the same sbgo command,
// lined up by one --start-at and numbered by their completion index, the
// script and its modules in a ConfigMap, the passwords in a Secret. The
// objects are the typed structs of k8s.io/api, written as YAML by
// sigs.k8s.io/yaml; nothing here writes YAML by hand. The flow around
// them (apply, wait, collect, merge) is in docs/distributed.md.
package kube

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Spec is what the manifests of one multi-client run need.
type Spec struct {
	// Name names the Job; the ConfigMap and the Secret take it with a
	// suffix. A DNS-1123 label.
	Name string
	// Namespace is the objects' namespace; "" leaves it to kubectl.
	Namespace string
	Image     string
	Clients   int
	// Script is the test as the pods name it: a bundled script's name,
	// or the base name of a file of Files.
	Script string
	// Args are the sbgo options every client runs with, in order,
	// without secrets, the command and the per-client options.
	Args    []string
	StartAt time.Time
	// Files are the script and the modules it requires from disk, placed
	// in the pods' working directory; none for a bundled script.
	Files []File
	// Secrets are the options whose values the pods read from a Secret:
	// the generated one, holding Value, or SecretName's.
	Secrets    []Secret
	SecretName string
	// CPU and Memory are each pod's resource requests (Kubernetes
	// quantities: "2", "500m", "1Gi"); Memory is its limit too.
	CPU, Memory string
	// Deadline ends the Job's pods that still run that long after its
	// start; 0 for none.
	Deadline time.Duration
}

// File is a Lua file for the pods: its path under the working directory
// and its source.
type File struct {
	Path string
	Data string
}

// Secret is an option whose value comes from a Secret, under the key of
// the option's name. Value is empty when the Secret exists already.
type Secret struct {
	Option string
	Value  string
}

// Write writes the manifests of s as YAML documents separated by "---",
// in the order kubectl must create them: the ConfigMap and the Secret
// before the Job that mounts and reads them.
func Write(w io.Writer, s Spec) error {
	objs, err := Objects(s)
	if err != nil {
		return err
	}
	for i, o := range objs {
		data, err := yaml.Marshal(o)
		if err != nil {
			return fmt.Errorf("writing the manifests: %w", err)
		}
		if i > 0 {
			data = append([]byte("---\n"), data...)
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return nil
}

// Objects are the run's Kubernetes objects: a ConfigMap when there are
// files, a Secret when it holds values, and the Job.
func Objects(s Spec) ([]any, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	var objs []any
	if len(s.Files) > 0 {
		cm, err := configMap(s)
		if err != nil {
			return nil, err
		}
		objs = append(objs, cm)
	}
	if len(s.Secrets) > 0 && s.SecretName == "" {
		objs = append(objs, secret(s))
	}
	job, err := job(s)
	if err != nil {
		return nil, err
	}
	return append(objs, job), nil
}

// check refuses a spec the API server would refuse, with one line.
func (s Spec) check() error {
	switch {
	case s.Clients < 1:
		return fmt.Errorf("--clients=%d: at least one client", s.Clients)
	case s.Image == "":
		return errors.New("no image for the clients (--image)")
	case s.StartAt.IsZero():
		return errors.New("no start time for the clients")
	}
	// The Job's name is a label of its pods too, so a DNS-1123 label;
	// the suffixes of the other objects keep within 63 characters.
	if msgs := nameErrors(s.Name); len(msgs) > 0 {
		return fmt.Errorf("--job-name=%s: %s", s.Name, strings.Join(msgs, "; "))
	}
	if s.Namespace != "" {
		if msgs := nameErrors(s.Namespace); len(msgs) > 0 {
			return fmt.Errorf("--namespace=%s: %s", s.Namespace, strings.Join(msgs, "; "))
		}
	}
	return nil
}

// SecretKeyEnv is the variable a pod reads an option's secret value into;
// its argument names it as $(VAR), which the kubelet expands.
func SecretKeyEnv(option string) string {
	return "SBGO_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(option))
}
