package org.gpuemu.emulator.config;

import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/** The check every block of a scenario file opens with: an object, and only the keys it declares. */
final class ConfigKeys {
  private ConfigKeys() {
  }

  /**
   * {@code value} as an object when it is one (each key outside {@code keys} reported at its path, the object still
   * returned); null, with one problem at {@code path}, when it is not.
   */
  static ConfigObject object(ConfigValue value, String path, Set<String> keys, BiConsumer<String, String> problem) {
    if (value.valueType() != ConfigValueType.OBJECT) {
      problem.accept(path, "expected an object with keys " + new TreeSet<>(keys));
      return null;
    }
    ConfigObject object = (ConfigObject) value;
    for (String key : object.keySet()) {
      if (!keys.contains(key)) {
        problem.accept(path + "." + ConfigUtil.joinPath(key), "unknown key; expected one of " + new TreeSet<>(keys));
      }
    }
    return object;
  }
}
