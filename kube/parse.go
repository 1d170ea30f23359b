package kube

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Manifests are the objects of Write's output, read back.
type Manifests struct {
	ConfigMap *corev1.ConfigMap
	Secret    *corev1.Secret
	Job       *batchv1.Job
}

// Parse reads Write's output back into the typed structs, strictly: a
// field the types do not know, or a kind Write does not write, is an
// error. Tests check the manifests with it.
func Parse(data []byte) (Manifests, error) {
	var m Manifests
	for doc := range strings.SplitSeq(string(data), "\n---\n") {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			return m, err
		}
		var into any
		switch tm.APIVersion + " " + tm.Kind {
		case "v1 ConfigMap":
			m.ConfigMap = &corev1.ConfigMap{}
			into = m.ConfigMap
		case "v1 Secret":
			m.Secret = &corev1.Secret{}
			into = m.Secret
		case "batch/v1 Job":
			m.Job = &batchv1.Job{}
			into = m.Job
		default:
			return m, fmt.Errorf("an object of kind %q %q", tm.APIVersion, tm.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			return m, fmt.Errorf("%s: %w", tm.Kind, err)
		}
	}
	return m, nil
}
