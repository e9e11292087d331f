// placeholder until the audit library lands
