// Application models for the reader's tests, in the shapes real packages have (docs/packages.md#the-package): an MQTT
// application with data, commands and a binary; a Mihini (M3DA) application; a gateway firmware for hawkBit.

export const NS = 'http://www.sierrawireless.com/airvantage/application/1.0'

/** A model with the given root attributes and children (UTF-8 unless a declaration is given). */
export function model (body: string, attrs = 'type="com.example.app" name="Example" revision="1.0"', declaration = '<?xml version="1.0" encoding="UTF-8"?>'): string {
  return `${declaration}\n<app:application xmlns:app="${NS}" ${attrs}>\n${body}\n</app:application>\n`
}

export const MQTT_MODEL = `<?xml version="1.0" encoding="UTF-8"?>
<app:application xmlns:app="${NS}"
    type="com.example.greenhouse"
    name="Greenhouse"
    revision="2.1.0">
  <capabilities>
    <communication>
      <protocol comm-id="SERIAL" type="mqtt">
        <parameter name="mqtt-security" value="user-password"/>
      </protocol>
    </communication>
    <dm>
      <action impl="MQTT_SW_INSTALL"/>
    </dm>
    <data>
      <encoding type="MQTT">
        <asset default-label="Greenhouse" id="greenhouse">
          <variable default-label="Temperature (°C)" path="temperature" type="double"/>
          <variable default-label="Door open" path="door" type="boolean"/>
          <node default-label="Configuration" path="config">
            <setting default-label="Report period" path="reportPeriodS" type="int" default-value="60"/>
            <setting default-label="Site" path="site" type="string"/>
          </node>
          <command default-label="Light" id="light">
            <description>Switches the light</description>
            <parameter default-label="On" default-value="true" id="on" type="boolean"/>
            <parameter id="level" type="int"><constraints><bounds min="0" max="100"/></constraints></parameter>
          </command>
        </asset>
      </encoding>
    </data>
  </capabilities>
  <application-manager use="MQTT_SW"/>
  <binaries>
    <binary file="greenhouse-2.1.0.tar.gz" revision="2.1.0" type="FULL"/>
  </binaries>
</app:application>
`

export const MIHINI_MODEL = `<?xml version="1.0" encoding="UTF-8"?><app:application xmlns:app="${NS}" name="greenhouse" revision="0.4" type="greenhouse">
  <capabilities>
\t<communication>
\t\t<protocol comm-id="SERIAL" type="M3DA">
          <parameter name="authentication" value="None"/>
          <parameter name="cipher" value="none"/>
        </protocol>
\t</communication>
    <data>
      <encoding type="M3DA">
        <asset default-label="greenhouse" id="greenhouse">
          <node default-label="Data" path="data">
            <variable default-label="Luminosity (Lux)" path="luminosity" type="double"/>
            <setting default-label="Temperature alarm" path="temperatureAlarm" type="boolean" default-value="false"/>
            <command default-label="Switch light" path="switchLight">
              <parameter default-label="State of the light wanted" default-value="false" id="state" type="boolean"/>
            </command>
          </node>
        </asset>
      </encoding>
    </data>
  </capabilities>
  <application-manager use="MIHINI_APPCON"/>
  <binaries>
    <binary file="bin.tar"/>
  </binaries>
</app:application>
`

export const HAWKBIT_FIRMWARE = model(`  <capabilities>
    <communication><protocol comm-id="SERIAL" type="REST"/></communication>
  </capabilities>
  <application-manager use="HAWKBIT"/>
  <binaries><binary file="images/gateway-5.2.swu" revision="5.2" type="FULL"/></binaries>`, 'type="gw.rootfs" name="Gateway root file system" revision="5.2" category="FIRMWARE"')
