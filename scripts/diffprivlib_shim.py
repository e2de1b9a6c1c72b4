"""Import this before diffprivlib: diffprivlib 0.6.6 imports two dtypes of scikit-learn's tree
module at import time (for its forests), which scikit-learn 1.9 no longer has. The tools the
scripts use never touch trees."""
import numpy as np
import sklearn.tree._tree

for name, dtype in (("DTYPE", np.float32), ("DOUBLE", np.float64)):
    if not hasattr(sklearn.tree._tree, name):
        setattr(sklearn.tree._tree, name, dtype)
